using System.Collections.Generic;

namespace Shop
{
    /// <summary>A cart.</summary>
    public class Cart : Base, IContainer
    {
        public void Add(Item it)
        {
            Validate();
            items.Add(it);
        }

        private void Validate() { }
    }

    public interface IContainer { void Add(Item it); }
    public enum Color { Red }
}
